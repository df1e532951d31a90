/* Fixed-size arrays, including a char array and a two-dimensional one. */
struct arrays {
    int v[4];
    char name[16];
    float m[2][3];
};
