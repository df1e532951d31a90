"""Helpers under the names AMD's HIP Python gives them (`hip._util.types`)."""
