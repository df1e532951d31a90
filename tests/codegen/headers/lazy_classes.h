/* Classes made on first use (spec conventions.lazy_classes): what stays eager, what is lazy. */
typedef enum lazyStatus { LAZY_SUCCESS = 0, LAZY_FAILED = 1 } lazyStatus_t;  /* the status: eager */
typedef enum lazyMode { LAZY_MODE_A = 0, LAZY_MODE_B = 1 } lazyMode_t;         /* only calls: lazy */
typedef enum lazyKind { LAZY_KIND_X = 0, LAZY_KIND_Y = 2 } lazyKind_t;         /* a field's: lazy */
typedef struct lazyDesc_st { lazyKind_t kind; int n; } lazyDesc_st;
typedef lazyDesc_st lazyDesc_v1;    /* typedef subclasses only a call returns: lazy */
typedef lazyDesc_v1 lazyDesc;
lazyStatus_t lazySetMode(lazyMode_t mode);
lazyStatus_t lazyGetMode(lazyMode_t* mode);
lazyStatus_t lazyGetDesc(lazyDesc* desc);
