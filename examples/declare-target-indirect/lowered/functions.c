/* The indirect functions, compiled twice: into the host program and into
 * the device image (same names, different addresses). */
int square(int x) { return x * x; }
int cube(int x) { return x * x * x; }
