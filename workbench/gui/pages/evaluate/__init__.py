"""Parts of the Evaluate page (pages/evaluate_page.py)."""
