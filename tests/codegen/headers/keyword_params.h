/* Parameters named after Python keywords. */
int move_item(int from, int to, int lambda, int pass);
