// Messages the window (ui/) raises as core errors, so that they travel and translate like core's.
// See clauses.h for the format. No include guard: an X-macro table.
ATTNLAB_MESSAGE(win_sample_model_missing, QT_TRANSLATE_NOOP("ErrorText", "%1: the sample model is missing from this build; rebuild Attention Lab"))
