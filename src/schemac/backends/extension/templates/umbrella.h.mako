${banner}
// ${view.what}
#pragma once
% for header in view.headers:
#include <${header}>
% endfor
