/* An enum with neither tag nor typedef: its constants become module constants. */
enum { FLAG_A = 1, FLAG_B = 1 << 3, FLAG_C = FLAG_A | FLAG_B };
