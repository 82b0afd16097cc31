PS1='\u@crab:\w\$ '
HISTFILE=~/.bash_history
