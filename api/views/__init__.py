"""API views, one module per resource family. All are thin: parse, call the
owning app's access helper or service, serialize."""
