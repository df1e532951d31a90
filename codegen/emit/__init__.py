"""Emitters: each turns an analysed IR module into one kind of output file."""
