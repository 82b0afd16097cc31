"""The phone's network: its link to the offline web (`link.WebLink`), the fetcher pages come through
(`fetch`), and the HTML subset Chrome lays out (`page`)."""
