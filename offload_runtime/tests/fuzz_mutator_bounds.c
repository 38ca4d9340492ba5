/* fuzz_mutator_bounds.c - the verifier fuzzer's custom mutator, driven
 * directly under AddressSanitizer: every mutation of inputs longer than
 * MAX_FUZZ_INSNS, of inputs as long as max_size allows and of small ones
 * must stay inside the buffer libFuzzer hands it and return a length
 * within max_size (case 5 once copied a negative length when the splice
 * point lay past MAX_FUZZ_INSNS).  Exit status 0 = every case passed. */
#include "../fuzz/fuzz_verifier.c"

/* libFuzzer's own mutator is not linked here: leave the input as it is. */
size_t
LLVMFuzzerMutate (uint8_t *data, size_t size, size_t max_size)
{
  return size <= max_size ? size : max_size;
}

int
main (void)
{
  static const size_t sizes[][2] = {
    /* { size, max_size } */
    { 300 * 8, 4096 }, { 512 * 8, 4096 }, { 257 * 8, 8192 },
    { 256 * 8, 2048 }, { 8, 2048 }, { 16, 16 }, { 40 * 8 + 3, 4096 },
  };
  unsigned long runs = 0;

  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (unsigned seed = 0; seed < 20000; seed++)
      {
        size_t size = sizes[k][0], max_size = sizes[k][1];
        /* an exact-size heap buffer, so ASan sees any write past max_size */
        uint8_t *buf = malloc (max_size);
        for (size_t i = 0; i < size; i++)
          buf[i] = (uint8_t) (i * 131 + seed);
        size_t out = LLVMFuzzerCustomMutator (buf, size, max_size, seed);
        if (out > max_size || out % 8)
          {
            fprintf (stderr, "seed %u, size %zu, max %zu: mutator returned %zu\n",
                     seed, size, max_size, out);
            return 1;
          }
        free (buf);
        runs++;
      }
  printf ("%lu mutations in bounds\n", runs);
  return 0;
}
