"""Parts of the Train page (pages/train_page.py)."""
