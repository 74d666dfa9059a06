"""Mutation testing of the grader: small changes to the reference embed.py must fail."""
