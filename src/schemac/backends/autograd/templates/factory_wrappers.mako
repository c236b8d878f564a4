% for w in view.wrappers:
${w.head} {
  at::AutoDispatchBelowADInplaceOrView guard;
  return autograd::make_variable(${w.call}, /*requires_grad=*/${w.requires_grad});
}
% endfor
