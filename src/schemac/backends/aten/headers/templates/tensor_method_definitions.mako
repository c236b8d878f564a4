% for d in view.definitions:

// ${d.schema}
inline ${d.head} {
    return at::_ops::${d.struct}::call(${d.arguments});
}
% endfor
