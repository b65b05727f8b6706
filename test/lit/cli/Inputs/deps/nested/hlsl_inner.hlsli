uint One() { return 1u; }
