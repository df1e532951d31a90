/* #define alias target: an alias of a function and one of a type. */
int real_fn(int x);
typedef struct { int v; } real_t;
#define alias_fn real_fn
#define alias_t real_t
