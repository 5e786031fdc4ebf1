/* A shared library that is not a media plugin: it exports no lancet_media_plugin_init. */
int lancet_not_a_plugin(void) { return 42; }
