"""The Data page's editors: labels, prompt, save as template."""
