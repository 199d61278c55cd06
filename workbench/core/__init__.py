"""The core layer: pure Python, pandas and pydantic. No Qt, no paddle (a test enforces it)."""
