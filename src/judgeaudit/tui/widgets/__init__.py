"""Small focused widgets."""
