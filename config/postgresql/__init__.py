"""Django's PostgreSQL backend, with the connection pool's wait bounded while the server refuses
connections (see :mod:`config.postgresql.base`)."""
