#define SEVEN 7u
