//! The thin command-line client: calls the server over HTTP only.
