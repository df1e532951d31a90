/* A named member of anonymous union type, and a C11 anonymous member whose fields are lifted. */
struct outer {
    int kind;
    union {
        int i;
        float f;
        double d;
    } u;
    char tail;
};
struct lifted {
    int a;
    union {
        int b;
        float c;
    };
    int d;
};
