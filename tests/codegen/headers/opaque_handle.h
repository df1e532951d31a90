/* An opaque handle: a typedef naming a pointer to a struct that is never defined. */
typedef struct foo* foo_t;
int foo_create(foo_t* out);
int foo_destroy(foo_t handle);
