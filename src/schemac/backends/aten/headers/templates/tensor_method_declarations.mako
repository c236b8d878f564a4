% for decl in view.declarations:
  ${decl}
% endfor
