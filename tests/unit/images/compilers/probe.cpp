// Device image of clang++ 22 for tests/unit/loader_compilers.sh: a global
// with a constructor and a destructor (the image's .init_array and
// .fini_array), virtual calls and an exception (R_X86_64_64 relocations
// against __gxx_personality_v0 and typeinfo).
struct B {
  virtual int f() { return 1; }
  virtual ~B() {}
};
struct D : B {
  int f() override { return 2; }
};
struct G {
  int v;
  G() : v(42) {}
  ~G() { v = 0; }
};
#pragma omp declare target
G glob;
extern "C" int probe() {
  try {
    D d;
    B *b = &d;
    if (b->f() == 2)
      throw 7;
  } catch (int e) {
    return glob.v + e - 7;
  }
  return -1;
}
#pragma omp end declare target
int main() {
  int r = 0;
#pragma omp target map(tofrom: r)
  r = probe();
  return r != 42;
}
