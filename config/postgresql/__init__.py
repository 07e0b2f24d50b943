"""Django's PostgreSQL backend, with the connection pool's wait cut short while the server is
away (see :mod:`config.postgresql.base`)."""
