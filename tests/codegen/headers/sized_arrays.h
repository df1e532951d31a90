/* Array extents written with sizeof (CUDA's launch attribute pads to 8 bytes past an enum), and
   C++-style defaults of nested records (dim3), in a struct with and without a union member. */
typedef enum attr_id { ATTR_IGNORE = 0 } attr_id_t;
struct attr {
    attr_id_t id;
    char pad[8 - sizeof(attr_id_t)];
    double value;
};
struct args {
    void *pairs;
    unsigned int count;
    char reserved[64 - sizeof(void *) - sizeof(unsigned int)];
    float m[2][3];
};
struct dims { unsigned int x, y, z; };
struct plain { struct dims grid; int n; };
struct with_union { union { void *f; int k; }; struct dims grid; };
