/* A tagged enum, and a tagged enum renamed by a typedef. */
enum color { RED, GREEN = 5, BLUE };
typedef enum shade { LIGHT = -1, DARK = 0x10 } shade_t;
