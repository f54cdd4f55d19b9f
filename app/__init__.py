"""Assisted-decoding arena: race plain and assisted generation side by side."""
