/* The syscall buffer preload library (see src/syscallbuf/abi.h once
 * buffering lands). For now it only marks itself as loaded. */
int mrr_preload_loaded = 1;
