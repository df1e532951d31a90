/* Numeric, string and derived macros; a function-like macro (never a constant). */
#define NUM 42
#define HEX 0x10u
#define SHIFTED (1 << 4)
#define REF (NUM + 1)
#define NAME "hello"
#define RATIO 1.5f
#define TWICE(x) ((x) * 2)
int macros_anchor(void);
