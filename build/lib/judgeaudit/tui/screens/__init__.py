"""Screens: Profiles (default), Launch, Run, Results, Pairs, Pair detail, Review, Runs."""
