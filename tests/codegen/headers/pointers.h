/* Pointer fields: void*, const char*, a self-referential pointer and a pointer to pointer. */
struct node {
    void* data;
    const char* label;
    struct node* next;
    int** pp;
};
