% for block in view.definitions:
${block}
% endfor
