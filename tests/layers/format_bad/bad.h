// Fixture: not clang-formatted.
int  badly_spaced ( int x ) {return x;}
