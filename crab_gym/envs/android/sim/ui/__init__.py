"""What the phone shows: the view tree, screens and widgets apps build, and their rendering to pixels."""
