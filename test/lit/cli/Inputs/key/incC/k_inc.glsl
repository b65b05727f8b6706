uint Weight() { return 2u; }
