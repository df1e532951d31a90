/* typedef struct {...} name: C can only call it by the typedef name. */
typedef struct {
    int first;
    long second;
} pair_t;
