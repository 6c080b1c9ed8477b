// nothing here yet
/* TODO */
