/* Deliberately broken: a missing closing parenthesis. */
int broken_function(int x;
