"""Other interpreters: find them, build them, give each a venv with the project."""
