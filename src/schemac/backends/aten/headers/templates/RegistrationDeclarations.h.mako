// Every operator a backend can register a kernel for, with the schema to
// register it under; read by out-of-tree backend code generators.
${banner}

% for line in view.lines:
${line}
% endfor
