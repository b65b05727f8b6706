uint Weight() { return 1u; }
