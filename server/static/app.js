window.x=1
