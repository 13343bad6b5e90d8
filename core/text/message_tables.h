// Every table of the message catalogue, in order (text/message.h, message.cpp include it with
// ATTNLAB_MESSAGE defined). Included through a macro so that lupdate, which reads each table as a
// file of its own, never meets the tables again inside the Msg enum (it would drop their marks).
// No include guard: included twice on purpose.
#include "text/messages/clauses.h"
#include "text/messages/cli.h"
#include "text/messages/engine.h"
#include "text/messages/explain.h"
#include "text/messages/io.h"
#include "text/messages/lessons.h"
#include "text/messages/pretrained.h"
#include "text/messages/steps.h"
#include "text/messages/subword.h"
#include "text/messages/training.h"
#include "text/messages/window.h"
