/* A function-pointer typedef, a function taking it, and one taking an unnamed function pointer. */
typedef void (*cb_t)(int status, void* user);
int register_cb(cb_t cb, void* user);
int register_raw(int (*fn)(void*, double), void* data);
