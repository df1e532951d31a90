/* Bitfields, spilling into a second 32-bit unit. */
struct flags {
    unsigned int a : 1;
    unsigned int b : 3;
    unsigned int c : 28;
    unsigned int d : 4;
    int plain;
};
