/* A libcuda.so.1 that has cuInit and nothing else: the cuda plugin must
 * refuse it (0 devices, a note naming the first missing function). */
int cuInit(unsigned int flags) { return flags ? 1 : 0; }
