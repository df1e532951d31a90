/* Functions without a result: nothing to return (None, as AMD's HIP Python returns for
   roctxMarkA), or only what they write (a tuple of outputs). */
void mark(const char* message);
void last_mark(int* level);
