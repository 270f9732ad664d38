/* A Fortran-style array descriptor (gfortran's CFI_cdesc_t) mapped to the
 * device the way docs/descriptor-mapping.md describes: the
 * descriptor is the parent (a record), its base_addr member is a pointer
 * member mapped PTR_AND_OBJ with MEMBER_OF(parent), so the runtime allocates
 * and copies the descriptor, maps the data, and attaches the device data
 * address into the device copy of the descriptor.
 *
 *   ./descriptor [parent-first|member-first]
 *
 * member-first lists the pointer member before its parent, as a front end
 * may emit; without care, copying the parent after the attach overwrites the
 * device pointer with the host one (docs/descriptor-mapping.md). */
#include <ISO_Fortran_binding.h>
#include <ompemu/omptarget.h>
#include <stdio.h>
#include <string.h>

#define N 8

extern const char region_id; /* from device_ids.c */

/* The host version of the kernel: doubles every element through the
 * descriptor (what the device kernel does). */
static void host_region(CFI_cdesc_t *d) {
  double *p = d->base_addr;
  for (CFI_index_t i = 0; i < d->dim[0].extent; i++)
    p[i] *= 2;
}

int main(int argc, char **argv) {
  int member_first = argc > 1 && !strcmp(argv[1], "member-first");
  double data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
  CFI_CDESC_T(1) desc;
  CFI_cdesc_t *d = (CFI_cdesc_t *)&desc;
  CFI_index_t extent[1] = {N};
  CFI_establish(d, data, CFI_attribute_pointer, CFI_type_double, 0, 1, extent);

  /* The map list of `map(tofrom: desc, desc%base_addr(1:N))`:
   *   [P] parent:  base=&desc begin=&desc size=sizeof(desc)  TARGET_PARAM
   *   [D] members: base=&desc begin=&desc size=sizeof(desc)  MEMBER_OF(P)|TO|FROM
   *   [B] base_addr: base=&desc.base_addr begin=data size=N*8 MEMBER_OF(P)|PTR_AND_OBJ|TO|FROM */
  size_t dsz = sizeof desc;
  void *pbase[3], *pbegin[3];
  int64_t size[3], type[3];
  int P = 0, D = 1, B = 2;
  if (member_first) { /* B and D before P; MEMBER_OF still names P */
    B = 0; D = 1; P = 2;
  }
  pbase[P] = d;              pbegin[P] = d;            size[P] = dsz;
  type[P] = OMP_TGT_MAPTYPE_TARGET_PARAM;
  pbase[D] = d;              pbegin[D] = d;            size[D] = dsz;
  type[D] = ompemu_member_of(P) | OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM;
  pbase[B] = &d->base_addr;  pbegin[B] = d->base_addr; size[B] = N * sizeof(double);
  type[B] = ompemu_member_of(P) | OMP_TGT_MAPTYPE_PTR_AND_OBJ | OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM;

  printf("map list (%s):\n", member_first ? "member first" : "parent first");
  for (int i = 0; i < 3; i++)
    printf("  [%d] base=%p begin=%p size=%3ld type=0x%016llx\n", i, pbase[i],
           pbegin[i], (long)size[i], (unsigned long long)type[i]);

  if (__tgt_target_mapper(NULL, -1, (void *)&region_id, 3, pbase, pbegin, size,
                          type, NULL, NULL) != 0)
    host_region(d);

  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += data[i] != 2.0 * i;
  printf("host descriptor base_addr after the region: %p (%s)\n", d->base_addr,
         d->base_addr == data ? "the host's own" : "WRONG");
  printf("data: %s\n", bad ? "WRONG" : "doubled on the device");
  return bad || d->base_addr != data;
}
