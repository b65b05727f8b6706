// Included from -I (count.comp) and from next to the including file (gen.comp).
uint Weight(uint x) { return (x & 1u) + 1u; }
