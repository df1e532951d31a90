/* A deprecated function next to its replacement. */
__attribute__((deprecated("use new_fn instead"))) int old_fn(void);
int new_fn(void);
