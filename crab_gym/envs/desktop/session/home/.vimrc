" The session's vim: Debian's defaults, but the end of an escape sequence is waited for 10 ms, not 100:
" keys come from a local X terminal all at once. Pressing Esc then leaves vim sleeping in pselect6 for 10 ms,
" which the settle probe reads as a timer due soon (primitives/cpu.py): a step ends after vim left Insert
" mode, not during its wait with "^[" shown.
unlet! skip_defaults_vim
source $VIMRUNTIME/defaults.vim
set ttimeoutlen=10
