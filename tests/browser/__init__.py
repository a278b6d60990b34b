"""The browser tier: Playwright drives the built site in Chromium."""
